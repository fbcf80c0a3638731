"""What zett's memory is made of: PSS after the 58 KB answer, and what each imported package costs.

Run: ``python -m benchmarks.bench_memory`` (about a minute). It prints the load average too.

1. zett is spawned in a pseudo-terminal (``bench_app.Pty``) against the fake OpenAI server (its own
   process) and answers the 58 KB Markdown answer (``bench_transcript.make_answer``). Then: its
   PSS (``/proc/PID/smaps_rollup``), before and after the answer, and the modules it has imported
   (a ``sitecustomize`` on ``PYTHONPATH``, for this run only, writes ``sys.modules`` on SIGUSR1).
2. In fresh interpreters: PSS after importing all of those modules, and after importing them with
   one package tree made unimportable (so every module that needs it is left out too): the
   difference is what that tree costs a session, with what cannot be without it.
3. The same for packages zett depends on that a plain session must *not* import (other providers'
   SDKs, MCP, web and image libraries): what each would cost if it were imported at start.

``--anthropic`` measures an Anthropic session instead (``anthropic:`` against the same fake server,
Messages shape), as zett runs it and with its request sent by the anthropic SDK as before
(``benchmarks/anthropic_sdk_request.py``, installed by the ``sitecustomize``): PSS before and after
the answer, whether ``anthropic`` was imported, and the time ``build_model`` takes in a fresh
interpreter (the imports of the warm-up thread); medians of ``--runs``, the two alternating.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.bench_app import ZETT, ServerProcess, isolated_env, spawned
from benchmarks.bench_startup import pss_kib
from benchmarks.bench_transcript import make_answer

SITECUSTOMIZE = """
import json, os, signal, sys
def _dump(signum, frame):
    with open(os.environ["ZETT_BENCH_MODULES"], "w") as out:
        # zett's stand-in for openai.resources (providers/sdk_resources.py) is not the SDK
        json.dump([n for n, m in sys.modules.items() if type(m).__name__ != "_ResourcePackage"], out)
signal.signal(signal.SIGUSR1, _dump)
if os.environ.get("ZETT_BENCH_SDK_REQUEST"):
    from benchmarks.anthropic_sdk_request import use_the_sdk_request
    use_the_sdk_request()
"""

#: Trees measured one by one (each with the packages only it brings).
TREES = {
    "textual + rich": ("textual", "rich"),
    "zett-agent": ("zett_agent",),
    "SQLAlchemy (zett-agent's history store)": ("sqlalchemy", "greenlet", "aiosqlite"),
    "pydantic (zett-agent's tool schemas)": (
        "pydantic",
        "pydantic_core",
        "annotated_types",
        "typing_inspection",
    ),
    "httpx + anyio": ("httpx", "httpcore", "anyio", "h11", "sniffio", "certifi", "idna", "truststore"),
    "markdown-it": ("markdown_it", "mdurl", "linkify_it"),
    "pygments": ("pygments",),
    "pathspec": ("pathspec",),
    "openai SDK": ("openai", "jiter", "distro"),
}

#: Installed, and imported only on first use: their cost were they imported at start.
NOT_IN_A_PLAIN_SESSION = {
    "anthropic SDK": "anthropic",
    "openai SDK (a chat session never imports it)": "openai",
    "MCP SDK": "mcp.client.session",
    "pillow (an attached image)": "PIL.Image",
    "beautifulsoup4 + markdownify (web_fetch)": "markdownify",
    "agent-client-protocol (zett acp)": "acp",
}

PROBE = """
import importlib, json, sys
def pss():
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
skip = tuple(json.loads(sys.argv[2]))
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in skip:
            raise ImportError(f"{name} is left out")
sys.meta_path.insert(0, Absent())
for name in json.loads(open(sys.argv[1]).read()):
    if name in sys.modules or name.startswith(("__main__", "sitecustomize")):
        continue
    try:
        importlib.import_module(name)
    except Exception:
        pass
for name in json.loads(sys.argv[3]):
    importlib.import_module(name)
print(json.dumps({"pss": pss(), "modules": len(sys.modules)}))
"""


#: An Anthropic session against the fake server (``ANTHROPIC_BASE_URL`` is its root).
ZETT_ANTHROPIC = ["-m", "zett_tui", "--model", "anthropic:claude-test"]

#: ``build_model`` for Anthropic in a fresh interpreter: wall and CPU seconds, and whether the SDK
#: was imported.
BUILD_PROBE = """
import sys, time
started, cpu = time.perf_counter(), time.process_time()
if sys.argv[1] == "sdk":
    from benchmarks.anthropic_sdk_request import use_the_sdk_request
    use_the_sdk_request()
from zett_tui.providers.build import ModelChoice, build_model
model = build_model(ModelChoice("anthropic", "claude-x"), {}, {"ANTHROPIC_API_KEY": "k"})
if sys.argv[1] == "sdk":
    model._client.messages  # what build_model touched for the SDK client, off the event loop
print(time.perf_counter() - started, time.process_time() - cpu, "anthropic" in sys.modules)
"""


def session_modules(
    work: Path, *, anthropic: bool = False, sdk_request: bool = False
) -> tuple[list[str], float, float]:
    """The modules of a zett session after the answer; its PSS before and after the answer (MB).
    ``anthropic``: an Anthropic session; ``sdk_request``: its request sent by the SDK (as before)."""
    hook = work / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    dump = work / "modules.json"
    server = ServerProcess(work / "server", make_answer())
    try:
        env = isolated_env(work / "home", server)
        env["PYTHONPATH"] = f"{hook}{os.pathsep}{env['PYTHONPATH']}"
        env["ZETT_BENCH_MODULES"] = str(dump)
        if anthropic:
            env["ANTHROPIC_API_KEY"] = "sk-ant-bench-dummy"
            env["ANTHROPIC_BASE_URL"] = server.openai_base_url.removesuffix("/v1")
        if sdk_request:
            env["ZETT_BENCH_SDK_REQUEST"] = "1"
        with spawned(ZETT_ANTHROPIC if anthropic else ZETT, env, work) as pty:
            if pty.wait(pty.idle, 60) is None:
                raise RuntimeError("zett never became idle")
            pty.settle()
            before = pss_kib(pty.child.pid) / 1024
            pty.child.send("the long answer, please\r")
            pty.wait(pty.writing, 60)
            pty.wait(pty.idle, 300)
            pty.settle()
            after = pss_kib(pty.child.pid) / 1024
            os.kill(pty.child.pid, signal.SIGUSR1)
            deadline = time.perf_counter() + 10
            while not dump.exists() and time.perf_counter() < deadline:
                pty.idle_for(0.1)
            pty.idle_for(0.3)
    finally:
        server.close()
    return json.loads(dump.read_text()), before, after


def probe(modules: Path, skip: tuple[str, ...] = (), extra: tuple[str, ...] = ()) -> float:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(modules), json.dumps(skip), json.dumps(extra)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return float(json.loads(result.stdout.splitlines()[-1])["pss"])


def anthropic_sessions(runs: int) -> None:
    """An Anthropic session with zett's request and with the SDK's (module doc), alternating."""
    load_before = os.getloadavg()
    variants = {"SDK request (before)": True, "zett's request": False}
    found: dict[str, list[tuple[float, float, bool, int]]] = {}
    build: dict[str, list[tuple[float, float]]] = {}
    for run in range(runs):
        for label, sdk_request in variants.items():
            with tempfile.TemporaryDirectory(prefix="zett-bench-memory-") as folder:
                modules, before, after = session_modules(
                    Path(folder), anthropic=True, sdk_request=sdk_request
                )
            tops = {name.split(".")[0] for name in modules}
            found.setdefault(label, []).append((before, after, "anthropic" in tops, len(modules)))
            result = subprocess.run(
                [sys.executable, "-c", BUILD_PROBE, "sdk" if sdk_request else "zett"],
                cwd=Path(__file__).resolve().parent.parent,
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
            wall, cpu, _ = result.stdout.split()
            build.setdefault(label, []).append((float(wall), float(cpu)))
        print(f"run {run + 1} of {runs} done", file=sys.stderr)
    print(f"Anthropic session, 58 KB answer; medians of {runs}")
    print(
        f"{'request':<22} {'PSS idle':>9} {'PSS after':>10} {'modules':>8} {'anthropic?':>11}"
        f" {'build_model wall / CPU':>23}"
    )
    for label, samples in found.items():
        before = statistics.median(sample[0] for sample in samples)
        after = statistics.median(sample[1] for sample in samples)
        count = statistics.median(sample[3] for sample in samples)
        imported = "yes" if any(sample[2] for sample in samples) else "no"
        wall = statistics.median(sample[0] for sample in build[label])
        cpu = statistics.median(sample[1] for sample in build[label])
        print(
            f"{label:<22} {before:>6.1f} MB {after:>7.1f} MB {count:>8.0f} {imported:>11}"
            f" {wall:>12.3f} / {cpu:.3f} s"
        )
    load_after = os.getloadavg()
    print(f"\nload average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {os.cpu_count()} CPUs")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--anthropic", action="store_true", help="an Anthropic session, before and after")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.anthropic:
        anthropic_sessions(args.runs)
        return
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="zett-bench-memory-") as folder:
        work = Path(folder)
        modules, before, after = session_modules(work)
        listing = work / "session-modules.json"
        listing.write_text(json.dumps(modules))
        trees = Counter(name.split(".")[0] for name in modules)
        print(
            f"zett session: PSS {before:.1f} MB idle, {after:.1f} MB after the 58 KB answer; {len(modules)} modules"
        )
        print("  most modules: " + ", ".join(f"{name} {count}" for name, count in trees.most_common(8)))
        everything = statistics.median([probe(listing) for _ in range(3)])
        print(f"\nthe same modules imported in a fresh interpreter: {everything:.1f} MB PSS (median of 3)")
        print(f"{'tree (and what needs it)':<46} {'PSS it adds':>12}  loaded")
        for label, packages in TREES.items():
            loaded = sum(trees[name] for name in packages)
            if not loaded:
                print(f"{label:<46} {'-':>12}  not imported")
                continue
            without = statistics.median([probe(listing, packages) for _ in range(3)])
            print(f"{label:<46} {everything - without:>9.1f} MB  {loaded} modules")
        print(f"\n{'installed, not imported by a plain session':<46} {'would add':>12}  imported?")
        for label, module in NOT_IN_A_PLAIN_SESSION.items():
            top = module.split(".")[0]
            with_it = statistics.median([probe(listing, (), (module,)) for _ in range(3)])
            print(f"{label:<46} {with_it - everything:>9.1f} MB  {'yes' if top in trees else 'no'}")
    load_after = os.getloadavg()
    print(f"\nload average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
