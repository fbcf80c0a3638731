"""Replay recorded provider streams against zett's real provider paths; one verdict per stream.

Run: ``python -m benchmarks.replay_provider_streams FOLDER`` where FOLDER holds ``*.sse`` streams
and the ``replay.py`` server that serves one on 127.0.0.1 (the shared provider-stream fixtures).
Not part of the test suite: the recordings are not in the repository.

For each stream, ``zett -p`` runs one turn against it (``ant_*`` through ``anthropic:``, the rest
through ``openai:``), in a throw-away project and data folder, then ``zett -c -p`` a second turn
in the same session, with the server as strict as Anthropic's API about empty text blocks. What
the stream should end as is read from the stream itself, not from a list: complete only with
its protocol's end signal (``message_stop``; ``finish_reason`` or ``[DONE]``) and no error event.
The verdict checks:

- a complete stream: exit 0 and the turn recorded ``completed``;
- an incomplete one: exit 1, a line on stderr, the turn recorded ``failed`` with the text shown
  (or, for an error before any output, retried and answered by the server's next reply);
- the second turn succeeds (nothing sent back was refused), and nothing says ``max_output``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ZETT = [sys.executable, "-m", "zett_tui"]


def expected_complete(raw: str, anthropic: bool) -> bool:
    """Whether the stream ends with its protocol's end signal and carries no error event."""
    datas = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
    parsed = []
    for data in datas:
        try:
            parsed.append(json.loads(data))
        except ValueError:
            parsed.append(data)
    objects = [item for item in parsed if isinstance(item, dict)]
    if anthropic:
        return any(o.get("type") == "message_stop" for o in objects) and not any(
            o.get("type") == "error" for o in objects
        )
    if any("error" in o or o.get("object") == "error" for o in objects):
        return False
    finished = any(
        isinstance(c, dict) and c.get("finish_reason") for o in objects for c in (o.get("choices") or [])
    )
    return finished or "[DONE]" in parsed


def start_server(folder: Path, fixture: Path, log: Path) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen(
        [
            sys.executable,
            str(folder / "replay.py"),
            "--fixture",
            str(fixture),
            "--port",
            "0",
            "--delay",
            "0",
            "--once",
            "--strict-anthropic",
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    return server, int(line.split()[1])


def session_records(data_home: Path) -> list[dict[str, object]]:
    records: list[dict[str, object]] = []
    for path in sorted((data_home / "zett" / "sessions").glob("*.jsonl")):
        records += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [record for record in records if "status" in record]


def replay_one(folder: Path, fixture: Path) -> tuple[bool, str]:
    anthropic = fixture.name.startswith("ant_")
    complete = expected_complete(fixture.read_text(encoding="utf-8"), anthropic)
    with tempfile.TemporaryDirectory(prefix="zett-replay-") as scratch:
        root = Path(scratch)
        project = root / "project"
        project.mkdir()
        (project / "hello.py").write_text('print("hi")\n')
        log = root / "requests.jsonl"
        server, port = start_server(folder, fixture, log)
        env = {
            **os.environ,
            "XDG_DATA_HOME": str(root / "data"),
            "XDG_CONFIG_HOME": str(root / "config"),
            "XDG_STATE_HOME": str(root / "state"),
            "XDG_CACHE_HOME": str(root / "cache"),
            "ANTHROPIC_API_KEY": "sk-ant-replay",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "OPENAI_API_KEY": "sk-replay",
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        }
        model = "anthropic:claude-replay" if anthropic else "openai:gpt-replay"
        try:
            first = subprocess.run(
                [*ZETT, "-m", model, "-p", "read hello.py"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            second = subprocess.run(
                [*ZETT, "-m", model, "-c", "-p", "and now?"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            server.terminate()
            server.wait()
        records = session_records(root / "data")
        served = [
            json.loads(line).get("served")
            for line in log.read_text().splitlines()
            if '"kind": "response"' in line
        ]
    problems: list[str] = []
    complete_after_retry = False
    status = records[0].get("status") if records else None
    said = (first.stderr + first.stdout).lower()
    if complete:
        if first.returncode != 0 or status != "completed":
            problems.append(f"complete stream gave exit {first.returncode}, status {status}")
    elif first.returncode == 0 and status == "completed" and "again" in served:
        complete_after_retry = True  # an error before any output was retried; the next attempt answered
    else:
        if first.returncode != 1 or status != "failed" or not first.stderr.strip():
            problems.append(f"incomplete stream gave exit {first.returncode}, status {status}")
    if "max_output" in said:
        problems.append("a stop reason in internal words")
    if second.returncode != 0 or any(str(s).startswith("400") for s in served):
        problems.append(f"the next turn failed (exit {second.returncode}; served {served})")
    shown = first.stderr.strip().splitlines()[-1] if first.stderr.strip() else "(nothing on stderr)"
    expected = "complete" if complete else "incomplete"
    if complete_after_retry:
        expected = "an error before any output, retried and then answered"
    if problems:
        return False, f"FAIL {fixture.stem}: expected {expected}; " + "; ".join(problems)
    return (
        True,
        f"ok   {fixture.stem}: {expected}, exit {first.returncode}, recorded {status}; said: {shown[:110]}",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path, help="the folder of *.sse streams and replay.py")
    parser.add_argument("--only", default="", help="replay only streams whose name contains this")
    args = parser.parse_args(argv)
    fixtures = sorted(path for path in args.folder.glob("*.sse") if args.only in path.stem)
    started = time.perf_counter()
    results = []
    for fixture in fixtures:
        ok, line = replay_one(args.folder, fixture)
        results.append(ok)
        print(line, flush=True)
    print(f"{sum(results)}/{len(results)} streams as expected ({time.perf_counter() - started:.0f} s)")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
