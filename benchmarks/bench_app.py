"""zett's speed end to end, each figure against a baseline measured in the same run.

Run: ``python -m benchmarks.bench_app`` (about 3 minutes; ``--runs 3`` is quicker, ``--only startup``
or ``--only stream`` runs one half). It prints a table of medians and ratios.

What it does:

1. **Start-up, in a pseudo-terminal.** The real ``zett`` (``python -m zett_tui --model openai:gpt-test``,
   a dummy key, ``OPENAI_BASE_URL`` at a fake server process, its own XDG folders) and, as the
   baseline, ``benchmarks/minimal_app.py`` (one TextArea) are spawned in a pty and read through
   pyte. A key written to the pty right after the spawn is timed until the prompt box shows it.
   Then 20 keys at 20 ms intervals from the spawn on, and 40 keys at 20 ms intervals from the first
   frame on (while the agent warms up): every key must arrive; the echo delay of each key written
   after the first frame is the time from the write to the first screen update that shows it.
2. **Enter in the first 100 ms.** ``hello`` + Enter written at spawn; the fake server's request log
   must receive the prompt.
3. **The 58 KB answer** (``bench_transcript.make_answer``: headings, prose, lists, tables, code), sent
   by the fake server process as fast as it can in 8-character chunks (~7,300 deltas):
   (a) the floor: an ``AgentHost`` with the real ``OpenAIProvider`` and a sink that does nothing;
   (b) ``ZettApp`` headless (``App.run_test``, 160x45) with the same provider: from Enter until the
   turn is over, the answer block holds the whole text and a frame was drawn after that
   (frames are encoded to escape sequences as a terminal driver would); CPU of this process and
   wall time. Both in this process, after a discarded warm-up run of (a).
   (c) keystroke echo while the answer streams, in the pty against the real ``zett``: a key (then a
   backspace) every 50 ms once the answer is on screen, each timed until the prompt box shows it.
   The baseline is ``benchmarks/minimal_streaming_app.py``: the minimal app with the runtime
   consuming the same answer through the same SDK, drawing none of it, typed at the same way.
   The headless run also reports echo, measured as key event sent -> first frame showing it.
4. **Idle CPU**: zett's own CPU ticks (``/proc/PID/stat`` utime+stime) over 5 s after a turn ends.
5. **Cancel**: Ctrl+C while the answer streams, until the status line says idle.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect
import pyte

from benchmarks.bench_transcript import FrameClock, make_answer

ROOT = Path(__file__).resolve().parent.parent
COLS, ROWS = 120, 36
HEADLESS_SIZE = (160, 45)
CHUNK = 8
START_KEY = "Z"
#: Letters that appear nowhere else on either app's first screen (placeholder, status line).
TYPED = "BDFGHJKLMNOPQRTUVWXY"
PLACEHOLDERS = ("Ask zett", "Enter: tell the running turn", "Type here")
SHORT_REPLY = "Hello from the fake model server."
TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


# -- the fake model server, as a process ---------------------------------------------------------------


class ServerProcess:
    """``tests.fakes.llm_server`` in its own process (its CPU is not ours), answering ``default``:
    as fast as it can, or paced (``delay`` seconds before each ``chunk``-character delta)."""

    def __init__(
        self,
        folder: Path,
        default: str,
        replies: list[dict[str, Any]] | None = None,
        *,
        chunk: int = CHUNK,
        delay: float = 0.0,
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / "script.json"
        default_reply: dict[str, Any] = {"kind": "text", "content": default, "chunk": chunk}
        if delay:
            default_reply["delay"] = delay
        script.write_text(json.dumps({"replies": replies or [], "default": default_reply}))
        self.requests_log = folder / "requests.jsonl"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.llm_server", "--port", "0", "--script", str(script),
             "--requests-log", str(self.requests_log), "--exit-on-stdin-eof"],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        self.openai_base_url = self.process.stdout.readline().strip() + "/v1"

    def prompts(self) -> list[str]:
        """The user messages of every request received so far."""
        if not self.requests_log.exists():
            return []
        found = []
        for line in self.requests_log.read_text().splitlines():
            for message in json.loads(line)["body"].get("messages", []):
                if message.get("role") == "user":
                    found.append(json.dumps(message.get("content")))
        return found

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def keep_zett_files_in(folder: Path) -> None:
    """From now on, zett in this process keeps its settings, sessions, history and logs under
    ``folder`` (the XDG folders moved there), not in the machine's: a benchmark's turns are no one's
    sessions. A user running a benchmark would otherwise find them in their session browser."""
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(folder / name.lower())


def isolated_env(home: Path, server: ServerProcess) -> dict[str, str]:
    keep = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL") if name in os.environ}
    return {
        **keep,
        "PYTHONPATH": str(ROOT),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "OPENAI_API_KEY": "sk-bench-dummy",
        "OPENAI_BASE_URL": server.openai_base_url,
    }


# -- a program in a pty, read through pyte -------------------------------------------------------------


ZETT = ["-m", "zett_tui", "--model", "openai:gpt-test"]
MINIMAL = ["-m", "benchmarks.minimal_app"]
#: The minimal app plus the runtime consuming the same answer: the baseline for echo while streaming.
MINIMAL_STREAMING = ["-m", "benchmarks.minimal_streaming_app"]


class AnsweringScreen(pyte.Screen):
    """A pyte screen that answers the device-attributes query (pyte's own answer) back to the program."""

    answer: Callable[[str], object] = staticmethod(lambda data: None)

    def write_process_input(self, data: str) -> None:
        self.answer(data)


#: What a dark terminal answers to OSC 11 (the background colour query); pyte itself ignores OSC 11.
OSC11_QUERY = b"\x1b]11;?"
OSC11_REPLY = "\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"


class Pty:
    """A program in a pseudo-terminal; ``started`` is taken just before the spawn.

    Like a real terminal it answers the background colour query (OSC 11) and the device attributes
    query (``CSI c``), so a program that asks them waits one round trip, not its timeout.

    A thread of its own reads the program's output as it comes and notes when each chunk arrived;
    this process parses the chunks (pyte, pure Python, ~2-3 us a byte) after. A screen update is
    timed by when its bytes arrived, as a terminal that parses at once would show it, not by
    when this process was done parsing everything written before it.
    """

    def __init__(
        self, args: list[str], env: dict[str, str], cwd: Path, program: str = sys.executable
    ) -> None:
        self.screen = AnsweringScreen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.started = time.perf_counter()
        self.child = pexpect.spawn(program, args, env=env, cwd=str(cwd), dimensions=(ROWS, COLS))
        self.child.delaybeforesend = None  # pexpect sleeps 50 ms before every send by default
        self.screen.answer = self.child.send
        self.first_frame: float | None = None
        #: When the status line first said idle (zett's agent is ready).
        self.ready_at: float | None = None
        #: When the program last wrote more than a cursor blink's worth of output.
        self.last_output = self.started
        #: Bytes read from the program, and seconds this process spent parsing them (pyte).
        self.bytes_read = 0
        #: When the bytes last parsed were read: a screen update is timed by it, not by the end of its
        #: parsing (pyte takes 100-160 ms over zett's first full frame, 15 KB, in this process).
        self.read_at = self.started
        self.parse_seconds = 0.0
        self._chunks: queue.Queue[tuple[float, bytes]] = queue.Queue()
        sys.setswitchinterval(0.001)  # the reader gets the GIL from the parsing within a millisecond
        threading.Thread(target=self._read_output, daemon=True, name="pty-reader").start()

    def _read_output(self) -> None:
        """Each chunk the program writes, with when it arrived; ``b""`` once it has closed."""
        while True:
            try:
                data = os.read(self.child.child_fd, 1 << 16)
            except OSError:
                data = b""
            self._chunks.put((time.perf_counter(), data))
            if not data:
                return

    def pump(self, timeout: float) -> bool:
        """Parse what the program wrote within ``timeout`` (returns after the first chunk); False if none."""
        try:
            arrived, data = self._chunks.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False
        if not data:
            self._chunks.put((arrived, data))  # the end stays the end for the next call
            time.sleep(max(0.0, min(timeout, 0.05)))
            return False
        if len(data) > 200:
            self.last_output = arrived
        if OSC11_QUERY in data:
            self.child.send(OSC11_REPLY)
        self.read_at = arrived
        parsing = time.perf_counter()
        self.stream.feed(data)
        self.parse_seconds += time.perf_counter() - parsing
        self.bytes_read += len(data)
        if self.first_frame is None and self.composer() is not None:
            self.first_frame = arrived
        if self.ready_at is None and self.idle():
            self.ready_at = arrived
        return True

    def wait(self, condition: Callable[[], bool], timeout: float) -> float | None:
        """When the output that made ``condition()`` hold arrived (now, if it holds already); None
        after ``timeout``."""
        deadline = time.perf_counter() + timeout
        if condition():
            return time.perf_counter()
        while time.perf_counter() < deadline:
            if self.pump(deadline - time.perf_counter()) and condition():
                return self.read_at
        return None

    def idle_for(self, seconds: float) -> None:
        """Keep reading (so the program never blocks on output) for ``seconds``."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            self.pump(deadline - time.perf_counter())

    def settle(self, quiet: float = 1.0, timeout: float = 15.0) -> None:
        """Read until the program has drawn nothing but cursor blinks for ``quiet`` seconds."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline and time.perf_counter() - self.last_output < quiet:
            self.pump(0.05)

    def composer(self) -> str | None:
        """The prompt box's text (the last rounded box on screen); '' for the placeholder; None before it."""
        lines = self.screen.display
        bottom = next((i for i in range(len(lines) - 1, 0, -1) if lines[i].startswith("╰")), None)
        if bottom is None:
            return None
        top = next((i for i in range(bottom - 1, -1, -1) if lines[i].startswith("╭")), None)
        if top is None:
            return None
        text = "".join(line[1:-1].strip() for line in lines[top + 1 : bottom])
        return "" if text.startswith(PLACEHOLDERS) else text

    def status(self) -> str:
        return self.screen.display[-1]

    def shows(self, text: str) -> bool:
        return any(text in line for line in self.screen.display)

    def idle(self) -> bool:
        return "○ idle" in self.status()

    def writing(self) -> bool:
        """The status line says the answer is streaming in."""
        return "writing" in self.status()

    def cpu_ticks(self) -> int:
        """utime + stime of the program, in clock ticks."""
        fields = Path(f"/proc/{self.child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()


@contextlib.contextmanager
def spawned(
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    program: str = sys.executable,
    terminal: type[Pty] | None = None,
) -> Iterator[Pty]:
    """``terminal``: the class that runs and reads the program (``Pty``, pyte, unless told)."""
    pty = (terminal or Pty)(args, env, cwd, program)
    try:
        yield pty
    finally:
        pty.close()


# -- results ---------------------------------------------------------------------------------------


@dataclass
class Results:
    values: dict[str, list[float]] = field(default_factory=dict)
    flags: dict[str, list[bool]] = field(default_factory=dict)

    def add(self, name: str, value: float | None) -> None:
        if value is not None:
            self.values.setdefault(name, []).append(value)

    def flag(self, name: str, ok: bool) -> None:
        self.flags.setdefault(name, []).append(ok)

    def median(self, name: str) -> float | None:
        samples = self.values.get(name)
        return statistics.median(samples) if samples else None

    def p95(self, name: str) -> float | None:
        samples = sorted(self.values.get(name, []))
        if not samples:
            return None
        return samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]

    def worst(self, name: str) -> float | None:
        samples = self.values.get(name)
        return max(samples) if samples else None


# -- 1 and 2: start-up -------------------------------------------------------------------------------


def first_key(args: list[str], env: dict[str, str], cwd: Path, results: Results, name: str) -> None:
    """A key written at spawn: time until the prompt box shows it (and the first frame, and ready)."""
    with spawned(args, env, cwd) as pty:
        pty.child.send(START_KEY)
        shown = pty.wait(lambda: START_KEY in (pty.composer() or ""), 15)
        results.flag(f"{name}.key_kept", shown is not None)
        results.add(f"{name}.key", None if shown is None else shown - pty.started)
        if pty.first_frame is not None:
            results.add(f"{name}.frame", pty.first_frame - pty.started)
        if args is ZETT:
            ready = pty.ready_at or pty.wait(pty.idle, 15)
            results.add("zett.ready", None if ready is None else ready - pty.started)


def type_keys(
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    results: Results,
    name: str,
    *,
    count: int,
    after_frame: bool,
) -> None:
    """``count`` keys 20 ms apart, from the spawn on or from the first frame on; each one's echo delay."""
    typed = (TYPED * (count // len(TYPED) + 1))[:count]
    with spawned(args, env, cwd) as pty:
        if after_frame:
            pty.wait(lambda: pty.first_frame is not None, 15)
        start = time.perf_counter()
        written: list[float] = []
        echoed: dict[int, float] = {}

        def note() -> None:
            text = pty.composer() or ""
            if typed.startswith(text):
                for index in range(len(text)):
                    echoed.setdefault(index, pty.read_at)

        while len(written) < count:
            due = start + 0.02 * len(written)
            if time.perf_counter() >= due:
                written.append(time.perf_counter())
                pty.child.send(typed[len(written) - 1])
            if pty.pump(due - time.perf_counter()):
                note()
        pty.wait(lambda: (note(), len(echoed) == count)[1], 5)
        if args is ZETT:
            pty.wait(pty.idle, 15)
            pty.idle_for(0.3)
        results.flag(f"{name}.all_keys", pty.composer() == typed)
        if pty.composer() != typed:
            print(f"  {name}: typed {typed!r}, prompt shows {pty.composer()!r}", file=sys.stderr)
            print("\n".join(pty.screen.display[-6:]), file=sys.stderr)
        frame = pty.first_frame or float("inf")
        delays = [echoed[i] - written[i] for i in echoed if written[i] >= frame]
        for delay in delays:
            results.add(f"{name}.echo", delay)
        if delays:
            results.add(f"{name}.echo_worst", max(delays))


def enter_at_start(env: dict[str, str], cwd: Path, server: ServerProcess, results: Results) -> None:
    """``hello`` + Enter written at spawn: does the fake server receive the prompt?"""
    before = len(server.prompts())
    with spawned(ZETT, env, cwd) as pty:
        pty.child.send("hello\r")
        sent = pty.wait(lambda: len(server.prompts()) > before, 10)
        results.flag("zett.enter_kept", sent is not None and "hello" in server.prompts()[-1])
        if sent is None:
            print("  Enter at spawn: no request; the screen shows:\n" + "\n".join(pty.screen.display[-8:]),
                  file=sys.stderr)  # fmt: skip
        results.add("zett.enter_sent", None if sent is None else sent - pty.started)


def run_startup(runs: int, work: Path, results: Results) -> None:
    server = ServerProcess(work / "server-short", SHORT_REPLY)
    project = work / "project"
    project.mkdir(exist_ok=True)
    try:
        for run in range(runs):
            for name, args in (("minimal", MINIMAL), ("zett", ZETT)):
                env = isolated_env(work / f"home-{name}-{run}", server)
                first_key(args, env, project, results, name)
                type_keys(args, env, project, results, f"{name}.spawn", count=20, after_frame=False)
                type_keys(args, env, project, results, f"{name}.warmup", count=40, after_frame=True)
            themed = [*ZETT, "--theme", "textual-dark"]
            env = isolated_env(work / f"home-themed-{run}", server)
            type_keys(themed, env, project, results, "themed.spawn", count=20, after_frame=False)
            enter_at_start(isolated_env(work / f"home-enter-{run}", server), project, server, results)
            print(f"  start-up run {run + 1}/{runs} done", file=sys.stderr)
        with spawned(MINIMAL, isolated_env(work / "home-minimal-idle", server), project) as pty:
            pty.wait(lambda: pty.first_frame is not None, 15)
            pty.settle()
            ticks = pty.cpu_ticks()
            pty.idle_for(5.0)
            results.add("minimal.idle_ticks", pty.cpu_ticks() - ticks)
    finally:
        server.close()


# -- 3a/3b: the stream, in this process ----------------------------------------------------------------


def openai_factory(server: ServerProcess) -> Callable[[], Any]:
    from zett_tui.providers.build import ModelChoice, build_model

    env = {"OPENAI_API_KEY": "sk-bench-dummy", "OPENAI_BASE_URL": server.openai_base_url}
    return lambda: build_model(ModelChoice("openai", "gpt-test"), {}, env)


@contextlib.asynccontextmanager
async def running_zett(
    server: ServerProcess, project: Path, size: tuple[int, int] = HEADLESS_SIZE, *, warm: float = 0.0
) -> AsyncIterator[tuple[Any, Any]]:
    """ZettApp headless against ``server``, once its host is up (and ``warm`` seconds after, for
    the idle warm-up after the first frame): ``(app, pilot)``."""
    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.ui.app import ZettApp

    launch = LaunchSettings(
        model_label="openai:gpt-test", model_factory=openai_factory(server), bell=False, cwd=project
    )
    app = ZettApp(launch)
    async with app.run_test(size=size) as pilot:
        while app.chat.host is None:
            await pilot.pause(0.02)
        if warm:
            await pilot.pause(warm)
        yield app, pilot


async def floor_once(server: ServerProcess, project: Path) -> tuple[float, float]:
    """CPU and wall seconds for an AgentHost consuming the answer with a sink that does nothing."""
    from zett_tui.runtime.host import AgentHost, HostOptions

    host = AgentHost(
        HostOptions(model_factory=openai_factory(server), model_label="openai:gpt-test", cwd=project)
    )
    await host.start()
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        finished = await host.run_turn("go", lambda event: None)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        await host.aclose()
    assert finished.status == "completed", finished
    return cpu, wall


async def app_once(server: ServerProcess, project: Path, answer: str, echo_every: float) -> dict[str, Any]:
    """ZettApp headless: Enter -> turn over, whole answer in its block, and a frame drawn after that."""
    from textual import events

    from zett_tui.entry.launch import LaunchSettings
    from zett_tui.ui.app import ZettApp
    from zett_tui.ui.widgets.transcript import AnswerBlock

    launch = LaunchSettings(
        model_label="openai:gpt-test", model_factory=openai_factory(server), bell=False, cwd=project
    )
    app = ZettApp(launch)
    async with app.run_test(size=HEADLESS_SIZE) as pilot:
        chat = app.chat
        while chat.host is None:
            await pilot.pause(0.02)
        clock = FrameClock(app)
        chat.composer.load_text("go")
        echoes: list[float] = []

        def answer_block() -> AnswerBlock | None:
            found = [block for block in chat.transcript.blocks if isinstance(block, AnswerBlock)]
            return found[-1] if found else None

        def rendered() -> bool:
            block = answer_block()
            return (
                block is not None
                and block.status is not None
                and not chat.turns.busy
                and not chat.transcript.update_pending
            )

        async def type_while_streaming() -> None:
            while not rendered():
                await asyncio.sleep(echo_every)
                if answer_block() is None:
                    continue
                composer, expected = chat.composer, len(chat.composer.text) + 1
                shown = clock.wait(
                    lambda composer=composer, expected=expected: len(composer.text) >= expected
                )
                sent = time.perf_counter()
                app._driver.send_message(events.Key("x", "x"))
                try:
                    echoes.append(await asyncio.wait_for(shown, 5) - sent)
                except TimeoutError:
                    print(f"  a key never showed; focus on {app.focused!r}", file=sys.stderr)

        assert app._driver is not None
        frames0 = clock.frames
        cpu0, wall0 = time.process_time(), time.perf_counter()
        # As the terminal driver would; pilot.press would wait for the app to be idle (after the stream).
        app._driver.send_message(events.Key("enter", "\r"))
        typing = asyncio.create_task(type_while_streaming()) if echo_every else None
        while not rendered():
            await asyncio.sleep(0.005)
        try:
            shown = await asyncio.wait_for(clock.wait(), 1.0)
        except TimeoutError:
            shown = time.perf_counter()
        cpu = time.process_time() - cpu0
        if typing is not None:
            await typing
        block = answer_block()
        assert block is not None and block.status == "completed" and block.text == answer, "answer incomplete"
        return {"cpu": cpu, "wall": shown - wall0, "frames": clock.frames - frames0, "echo": echoes}


async def run_stream_inprocess(runs: int, work: Path, answer: str, results: Results) -> None:
    server = ServerProcess(work / "server-long", answer)
    project = work / "project"
    project.mkdir(exist_ok=True)
    try:
        await floor_once(server, project)  # warm-up: first-use imports of the SDK's streaming code
        for run in range(runs):
            cpu, wall = await floor_once(server, project)
            results.add("floor.cpu", cpu)
            results.add("floor.wall", wall)
            outcome = await app_once(server, project, answer, echo_every=0)
            results.add("app.cpu", outcome["cpu"])
            results.add("app.wall", outcome["wall"])
            results.add("app.frames", outcome["frames"])
            print(
                f"  stream run {run + 1}/{runs}: floor {wall:.2f} s, app {outcome['wall']:.2f} s",
                file=sys.stderr,
            )
        outcome = await app_once(server, project, answer, echo_every=0.05)
        for echo in outcome["echo"]:
            results.add("app.headless_echo", echo)
    finally:
        server.close()


# -- 3c, 4, 5: the stream in the pty -------------------------------------------------------------------


def type_while_streaming(pty: Pty, results: Results, prefix: str) -> float:
    """Send a prompt, then a key (or a backspace) every 50 ms until the answer is in; each one's echo
    delay goes to ``PREFIX.echo``. Returns when the prompt was sent."""
    if pty.wait(pty.idle, 20) is None:
        raise RuntimeError(f"{prefix} never became idle:\n" + "\n".join(pty.screen.display))
    pty.child.send("stream please\r")
    sent = time.perf_counter()
    if pty.wait(pty.writing, 20) is None:
        raise RuntimeError("the answer never appeared:\n" + "\n".join(pty.screen.display))
    while not pty.idle():
        key, expected = ("x", "x") if pty.composer() == "" else ("\x7f", "")
        written = time.perf_counter()
        pty.child.send(key)
        shown = pty.wait(lambda expected=expected: pty.composer() == expected, 5)  # type: ignore[misc]
        if shown is None:
            results.flag(f"{prefix}.echo_arrived", False)
            break
        results.add(f"{prefix}.echo", shown - written)
        pty.wait(lambda: False, max(0.0, written + 0.05 - time.perf_counter()))
    return sent


def stream_in_pty(work: Path, answer: str, results: Results, run: int) -> None:
    server = ServerProcess(work / f"server-pty-{run}", answer)
    project = work / "project"
    project.mkdir(exist_ok=True)
    try:
        with spawned(MINIMAL_STREAMING, isolated_env(work / f"home-baseline-{run}", server), project) as pty:
            type_while_streaming(pty, results, "minimal.pty")
        with spawned(ZETT, isolated_env(work / f"home-stream-{run}", server), project) as pty:
            bench_cpu0 = time.process_time()
            sent = type_while_streaming(pty, results, "zett.pty")
            finished = pty.wait(pty.idle, 60)
            results.add("pty.turn_wall", None if finished is None else finished - sent)
            results.add("pty.bench_cpu", time.process_time() - bench_cpu0)

            pty.settle()
            ticks = pty.cpu_ticks()
            pty.idle_for(5.0)
            results.add("zett.idle_ticks", pty.cpu_ticks() - ticks)

            if pty.composer():
                pty.child.send("\x03")  # clears the prompt box
                pty.wait(lambda: pty.composer() == "", 5)
            for attempt in range(3):
                pty.child.send(f"again {attempt}\r")
                pty.wait(pty.writing, 20)
                pty.idle_for(0.3)  # well into the answer
                pressed = time.perf_counter()
                pty.child.send("\x03")
                stopped = pty.wait(pty.idle, 10)
                results.add("pty.cancel", None if stopped is None else stopped - pressed)
                pty.idle_for(0.3)
    finally:
        server.close()


# -- report ---------------------------------------------------------------------------------------------


def ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def ratio(value: float | None, base: float | None) -> str:
    return "n/a" if value is None or not base else f"{value / base:.2f}x"


def kept(results: Results, name: str) -> str:
    flags = results.flags.get(name, [])
    return f"{sum(flags)}/{len(flags)}" if flags else "n/a"


HEADER = ("measure", "zett", "baseline", "ratio", "target")


def med_p95(results: Results, name: str) -> str:
    return f"{ms(results.median(name))} / {ms(results.p95(name))}"


def compare(results: Results, name: str, show: Callable[[float | None], str]) -> tuple[str, str, str]:
    """zett's median of ``zett.NAME``, the baseline's of ``minimal.NAME`` (or ``floor.NAME``), the ratio."""
    ours = (
        results.median(f"zett.{name}") if f"zett.{name}" in results.values else results.median(f"app.{name}")
    )
    base = (
        results.median(f"minimal.{name}")
        if f"minimal.{name}" in results.values
        else results.median(f"floor.{name}")
    )
    return show(ours), show(base), ratio(ours, base)


def report(results: Results, answer: str) -> None:
    r = results
    rows: list[tuple[str, ...]] = []
    if "zett.key" in r.values or "zett.key_kept" in r.flags:
        rows += [
            ("first frame (prompt box drawn)", *compare(r, "frame", seconds), ""),
            ("key typed at spawn shown", *compare(r, "key", seconds), "<= 1.25x"),
            ("  key kept (runs)", kept(r, "zett.key_kept"), kept(r, "minimal.key_kept"), "", "all"),
            ("agent ready (status idle)", seconds(r.median("zett.ready")), "", "", ""),
            ("20 keys from spawn: all arrived", kept(r, "zett.spawn.all_keys"),
             kept(r, "minimal.spawn.all_keys"), "", "all"),
            ("  the same, zett --theme (no OSC 11 query)", kept(r, "themed.spawn.all_keys"), "", "", "all"),
            ("40 keys from 1st frame: all arrived", kept(r, "zett.warmup.all_keys"),
             kept(r, "minimal.warmup.all_keys"), "", "all"),
            ("  echo median / p95 during warm-up", med_p95(r, "zett.warmup.echo"),
             med_p95(r, "minimal.warmup.echo"), "", ""),
            ("  worst echo during warm-up", ms(r.worst("zett.warmup.echo_worst")),
             ms(r.worst("minimal.warmup.echo_worst")), "", "< 100 ms"),
            ("Enter at spawn: prompt sent", kept(r, "zett.enter_kept"), "", "", "all"),
            ("  request received after spawn", seconds(r.median("zett.enter_sent")), "", "", ""),
        ]  # fmt: skip
    if "floor.cpu" in r.values:
        rows += [
            (f"58 KB answer ({len(answer) // CHUNK} deltas): CPU", *compare(r, "cpu", seconds), "<= 2x"),
            ("  wall, until rendered", *compare(r, "wall", seconds), "<= 2x"),
            ("  frames drawn (headless)", f"{r.median('app.frames'):.0f}", "", "", ""),
            ("  echo while streaming (headless) med/p95", med_p95(r, "app.headless_echo"), "", "", "< 25 ms"),
        ]  # fmt: skip
    if "zett.pty.echo" in r.values:
        rows += [
            ("echo while streaming (pty) median", *compare(r, "pty.echo", ms), "< 25 ms"),
            ("  p95", ms(r.p95("zett.pty.echo")), ms(r.p95("minimal.pty.echo")),
             ratio(r.p95("zett.pty.echo"), r.p95("minimal.pty.echo")), ""),
            ("  keys (n)", str(len(r.values["zett.pty.echo"])),
             str(len(r.values.get("minimal.pty.echo", []))), "", ""),
            ("  Enter -> answer done (pty)", seconds(r.median("pty.turn_wall")), "", "", ""),
            ("  harness CPU while streaming (pty)", seconds(r.median("pty.bench_cpu")), "", "", ""),
            ("idle CPU over 5 s (clock ticks)", f"{r.median('zett.idle_ticks'):.0f}",
             f"{r.median('minimal.idle_ticks'):.0f}" if "minimal.idle_ticks" in r.values else "", "", "0"),
            ("Ctrl+C while streaming -> idle",
             f"{ms(r.median('pty.cancel'))} (worst {ms(r.worst('pty.cancel'))})", "", "", "< 200 ms"),
        ]  # fmt: skip
    widths = [max(len(row[i]) for row in [*rows, HEADER]) for i in range(5)]
    for row in [HEADER, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs per start-up figure (default 5)")
    parser.add_argument(
        "--stream-runs", type=int, default=3, help="runs of the in-process stream (default 3)"
    )
    parser.add_argument("--pty-runs", type=int, default=2, help="runs of the stream in the pty (default 2)")
    parser.add_argument("--only", choices=("startup", "stream", "pty"), help="run one part only")
    parser.add_argument("--json", type=Path, help="also write every sample to this file")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="zett-bench-"))
    for name, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"),
                      ("XDG_CACHE_HOME", "cache")):  # fmt: skip
        os.environ[name] = str(work / "self" / sub)
    answer = make_answer()
    results = Results()
    started = time.perf_counter()
    try:
        if args.only in (None, "startup"):
            run_startup(args.runs, work, results)
        if args.only in (None, "stream"):
            asyncio.run(run_stream_inprocess(args.stream_runs, work, answer, results))
        if args.only in (None, "pty"):
            for run in range(args.pty_runs):
                stream_in_pty(work, answer, results, run)
                print(f"  pty stream run {run + 1}/{args.pty_runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"zett bench_app: {os.cpu_count()} CPUs, {time.perf_counter() - started:.0f} s, "
          f"medians of {args.runs} start-up runs")  # fmt: skip
    report(results, answer)
    if args.json:
        args.json.write_text(json.dumps({"values": results.values, "flags": results.flags}, indent=1))


if __name__ == "__main__":
    main()
